// Reading VTK files back in tests as ParaView reads them: VTK's XML readers for .vti, .pvti and .vtp, everything
// they give back (point, cell and field data, points, connectivity, an image's extent, origin and spacing) by name.
#pragma once

#include <gtest/gtest.h>
#include <vtkAbstractArray.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkDataArray.h>
#include <vtkDataSet.h>
#include <vtkFieldData.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>
#include <vtkStringArray.h>
#include <vtkXMLImageDataReader.h>
#include <vtkXMLPImageDataReader.h>
#include <vtkXMLPolyDataReader.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace eddy::test {

/// One array as VTK's reader gives it: type, components and the values (numbers as doubles, exact for the
/// Float32/Float64/Int32/Int64 arrays eddy writes; strings as text).
struct ArrayValues {
  int type = 0;
  int components = 0;
  std::vector<double> numbers;
  std::vector<std::string> text;
  bool operator==(const ArrayValues& o) const {
    return type == o.type && components == o.components && numbers == o.numbers && text == o.text;
  }
};
/// Everything a reader gives back, by "<kind>/<name>": point, cell and field data, the points, the vertex and
/// polygon connectivity, and an image's extent, origin and spacing.
using Arrays = std::map<std::string, ArrayValues>;

inline ArrayValues values_of(vtkAbstractArray* array) {
  ArrayValues v;
  v.type = array->GetDataType();
  v.components = array->GetNumberOfComponents();
  if (auto* data = vtkDataArray::SafeDownCast(array)) {
    const vtkIdType n = data->GetNumberOfTuples();
    for (vtkIdType t = 0; t < n; ++t) {
      for (int c = 0; c < v.components; ++c) v.numbers.push_back(data->GetComponent(t, c));
    }
  } else if (auto* strings = vtkStringArray::SafeDownCast(array)) {
    for (vtkIdType t = 0; t < strings->GetNumberOfValues(); ++t) v.text.push_back(strings->GetValue(t));
  }
  return v;
}

inline void add_all(Arrays& arrays, const std::string& kind, vtkFieldData* data) {
  for (int a = 0; a < data->GetNumberOfArrays(); ++a) {
    vtkAbstractArray* array = data->GetAbstractArray(a);
    arrays[kind + "/" + (array->GetName() ? array->GetName() : "?")] = values_of(array);
  }
}

/// Reads `path` with VTK's reader for its extension (.vti, .pvti, .vtp); fails the test when the reader reports an
/// error.
inline Arrays read_arrays(const std::string& path) {
  Arrays arrays;
  const std::string ext = std::filesystem::path(path).extension().string();
  vtkSmartPointer<vtkDataSet> data;
  if (ext == ".vti" || ext == ".pvti") {
    vtkSmartPointer<vtkXMLReader> reader;
    if (ext == ".vti")
      reader = vtkSmartPointer<vtkXMLImageDataReader>::New();
    else
      reader = vtkSmartPointer<vtkXMLPImageDataReader>::New();
    reader->SetFileName(path.c_str());
    reader->Update();
    EXPECT_EQ(reader->GetErrorCode(), 0ul) << path;
    auto* image = vtkImageData::SafeDownCast(reader->GetOutputDataObject(0));
    if (!image) {
      ADD_FAILURE() << path << ": no image";
      return arrays;
    }
    const int* e = image->GetExtent();
    arrays["image/extent"].numbers = {double(e[0]), double(e[1]), double(e[2]),
                                      double(e[3]), double(e[4]), double(e[5])};
    for (int a = 0; a < 3; ++a) {
      arrays["image/origin"].numbers.push_back(image->GetOrigin()[a]);
      arrays["image/spacing"].numbers.push_back(image->GetSpacing()[a]);
    }
    data = image;
  } else {
    vtkNew<vtkXMLPolyDataReader> reader;
    reader->SetFileName(path.c_str());
    reader->Update();
    EXPECT_EQ(reader->GetErrorCode(), 0ul) << path;
    vtkPolyData* poly = reader->GetOutput();
    if (!poly) {
      ADD_FAILURE() << path << ": no poly data";
      return arrays;
    }
    if (poly->GetPoints()) arrays["points"] = values_of(poly->GetPoints()->GetData());
    arrays["verts/connectivity"] = values_of(poly->GetVerts()->GetConnectivityArray());
    arrays["verts/offsets"] = values_of(poly->GetVerts()->GetOffsetsArray());
    arrays["polys/connectivity"] = values_of(poly->GetPolys()->GetConnectivityArray());
    arrays["polys/offsets"] = values_of(poly->GetPolys()->GetOffsetsArray());
    data = poly;
  }
  add_all(arrays, "point", data->GetPointData());
  add_all(arrays, "cell", data->GetCellData());
  add_all(arrays, "field", data->GetFieldData());
  return arrays;
}

}  // namespace eddy::test
